import {
  Card,
  CardActionArea,
  CardContent,
  Grid,
  LinearProgress,
  List,
  ListItem,
  ListItemText,
  Typography,
} from '@mui/material';
import { useEffect } from 'react';
import { useAgents, useAlerts, useExecutions, useTools } from '../stores/resources';
import { useSession } from '../stores/session';
import { useEngineRefresh } from '../stores/events';
import { ErrorNote, Page, StatusChip, fmtDate, fmtNum } from '../ui/common';
import { EmptyState } from '../ui/EmptyState';
import { DemoCard } from '../ui/DemoCard';

/** Recent executions with pass rates, alerts firing, tool health at a glance. */
export function Overview() {
  const executions = useExecutions();
  const alerts = useAlerts();
  const tools = useTools();
  const agents = useAgents();
  const navigate = useSession((s) => s.navigate);
  useEffect(() => {
    void executions.load({ limit: 10 });
    void alerts.load();
    void tools.load();
    void agents.load();
  }, []);
  useEngineRefresh(
    (e) => e.type === 'simulation.finished' || e.type.startsWith('alert.'),
    () => {
      void executions.load({ limit: 10 });
      void alerts.load();
    },
  );
  const firing = alerts.items.filter((a) => a.state === 'firing');
  return (
    <Page title="Overview">
      <ErrorNote error={executions.error ?? alerts.error ?? tools.error} />
      <Grid container spacing={2}>
        {agents.loaded && agents.items.length === 0 && (
          <Grid size={12}>
            <DemoCard />
          </Grid>
        )}
        <Grid size={{ xs: 12, md: 6 }}>
          <Card>
            <CardContent>
              <Typography variant="h6" component="h2">
                Recent executions
              </Typography>
              <List dense aria-label="Recent executions">
                {executions.items.map((e) => (
                  <ListItem key={e.id} disablePadding>
                    <CardActionArea onClick={() => navigate(`executions/${e.id}`)} sx={{ px: 1 }}>
                      <ListItemText
                        primary={
                          <>
                            {e.scenario_name ?? '(deleted scenario)'}{' '}
                            <StatusChip value={e.status} />
                          </>
                        }
                        secondary={`${fmtDate(e.created_at)} · pass rate ${fmtNum(e.pass_rate, '%')} · avg ${fmtNum(e.avg_score)}`}
                      />
                    </CardActionArea>
                  </ListItem>
                ))}
              </List>
              {executions.loaded && executions.items.length === 0 && (
                <EmptyState
                  text="No executions yet: execute a scenario to see its calls scored here."
                  actionLabel="Go to Scenarios"
                  onAction={() => navigate('scenarios')}
                />
              )}
            </CardContent>
          </Card>
        </Grid>
        <Grid size={{ xs: 12, md: 6 }}>
          <Card>
            <CardContent>
              <Typography variant="h6" component="h2">
                Alerts firing ({firing.length})
              </Typography>
              <List dense>
                {firing.map((a) => (
                  <ListItem key={a.id}>
                    <ListItemText primary={a.name} secondary={a.severity} />
                  </ListItem>
                ))}
              </List>
              {alerts.loaded && firing.length === 0 && (
                <EmptyState
                  text={
                    alerts.items.length
                      ? 'No alert is firing.'
                      : 'No alerts yet: an alert tells you when a figure crosses a line.'
                  }
                  actionLabel={alerts.items.length ? undefined : 'Go to Alerts'}
                  onAction={() => navigate('alerts')}
                />
              )}
            </CardContent>
          </Card>
          <Card sx={{ mt: 2 }}>
            <CardContent>
              <Typography variant="h6" component="h2">
                Tools
              </Typography>
              <List dense>
                {tools.items.map((t) => (
                  <ListItem key={t.id}>
                    <ListItemText primary={t.name} secondary={`${t.type} · version ${t.version}`} />
                  </ListItem>
                ))}
              </List>
              {tools.loaded && tools.items.length === 0 && (
                <EmptyState
                  text="No tools yet: a tool is an API your agent calls."
                  actionLabel="Go to Tools"
                  onAction={() => navigate('tools')}
                />
              )}
              {tools.loading && <LinearProgress />}
            </CardContent>
          </Card>
        </Grid>
      </Grid>
    </Page>
  );
}
